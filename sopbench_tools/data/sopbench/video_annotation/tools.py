# Copyright Amazon.com, Inc. or its affiliates. All Rights Reserved.
# SPDX-License-Identifier: CC-BY-NC-4.0


import os
import json
import pandas as pd
from typing import Any, Dict, List
import random
class VideoProcessingManager:
    DATASET_CSV_FILE = "test_set_with_outputs.csv"
    TOOLSPEC_JSON_FILE = "toolspecs.json"
    
    def __init__(self):
        """Initialize the BusinessVerificationManager with dataset path."""
        self.dataset_file_path = os.path.join(
            os.path.dirname(os.path.abspath(__file__)), self.DATASET_CSV_FILE
        )
        print(f"Dataset file path: {self.dataset_file_path}")
        self.toolspec_file_path = os.path.join(
            os.path.dirname(os.path.abspath(__file__)), self.TOOLSPEC_JSON_FILE
        )
        print(f"Toolspec file path: {self.toolspec_file_path}")
        with open(self.toolspec_file_path, "r") as fr:
            toolspec_json = json.load(fr)
            random.shuffle(toolspec_json)
        self.tool_config = {"tools": toolspec_json}   

    def processHighResolution(self, video_id: str, resolution_width: int, resolution_height: int) -> Dict[str, Any]:
        """
        Processes high-resolution video content by applying necessary transformations,
        optimizations, or validations for the given video ID and resolution.

        Parameters:
            video_id (str): Unique identifier of the video to be processed.
            resolution_width (int): Target resolution width in pixels (e.g., 1920 for Full HD).
            resolution_height (int): Target resolution height in pixels (e.g., 1080 for Full HD).

        Returns:
            Dict[str, Any]: A dictionary containing the processing results, including:
                - 'status' (str): Status of the processing operation (e.g., 'success', 'error').
                - 'message' (str): Descriptive message or error information.
                - 'processed_video_path' (str, optional): Path to the processed video file, if successful.
                - 'processing_time' (float, optional): Time taken to process the video, in seconds.
                - 'metadata' (dict, optional): Additional metadata or debug information.
        """
        pass

    def validateOutputFormat(self, video_id: str, output_format_object_detection: str) -> Dict[str, Any]:
        """
        Validates the output format specification for object detection results
        associated with a given video.

        Parameters:
            video_id (str): Unique identifier of the video whose output format is being validated.
            output_format_object_detection (str): The expected output format for object detection 
                (e.g., 'COCO', 'YOLO', 'PascalVOC').

        Returns:
            Dict[str, Any]: A dictionary containing the validation results, including:
                - 'is_valid' (bool): Whether the format is valid and supported.
                - 'format' (str): The format string that was validated.
                - 'message' (str): Additional context or error message if invalid.
                - 'supported_formats' (List[str]): List of supported formats for object detection.
        """

        pass

    def checkProcessingStatus(self, video_id: str) -> Dict[str, Any]:
        """
        Checks the processing status of a video by its unique identifier.

        Parameters:
            video_id (str): Unique identifier of the video whose processing status is to be checked.

        Returns:
            Dict[str, Any]: A dictionary containing the current processing status, including:
                - 'video_id' (str): The ID of the queried video.
                - 'status' (str): Processing status (e.g., 'pending', 'in_progress', 'completed', 'failed').
                - 'progress' (float, optional): Percentage completion (0.0 to 100.0), if available.
                - 'last_updated' (str, optional): Timestamp of the last status update in ISO 8601 format.
                - 'error_message' (str, optional): Description of any processing error, if status is 'failed'.
        """

        pass

    def optimizeTrackingSettings(self, video_id: str, tracking_enabled: bool) -> Dict[str, Any]:
        """
        Optimizes object tracking settings for a specific video based on whether tracking is enabled.

        Parameters:
            video_id (str): Unique identifier of the video for which tracking settings are to be optimized.
            tracking_enabled (bool): Flag indicating whether object tracking is enabled for this video.

        Returns:
            Dict[str, Any]: A dictionary containing the optimization results, including:
                - 'video_id' (str): The ID of the video.
                - 'tracking_enabled' (bool): Echo of the input parameter.
                - 'optimized_parameters' (dict): Dictionary of adjusted tracking parameters (e.g., frame skip, model type).
                - 'status' (str): Status of the optimization operation (e.g., 'success', 'warning', 'error').
                - 'message' (str): Descriptive message about the result of the optimization.
        """
        pass

    def validateVideoFormat(self, video_id: str) -> Dict[str, Any]:
        """
        Validates video format and metadata against required specifications.
        
        Parameters:
        -----------
        video_id : str
            Unique identifier for the video
            
        Returns:
        --------
        Dict[str, Any]
            Dictionary containing video format validation results
            
        Raises:
        -------
        ValueError
            If video_id is invalid or missing
        """
        if not video_id:
            raise ValueError("Missing required parameter: video_id")

        # Load dataset
        df = pd.read_csv(self.dataset_file_path)
        
        # Find matching video record
        matched_rows = df[df['video_id'] == video_id]
        
        if len(matched_rows) > 1:
            raise ValueError(f"Multiple records found for video_id: {video_id}")
            
        if matched_rows.empty:
            raise ValueError(f"No record found for video_id: {video_id}")
            
        row = matched_rows.iloc[0]
        
        return {
            "video_id": row['video_id'],
            "video_path": row['video_path'],
            "format": row['format'],
            "resolution_width": int(row['resolution_width']),
            "resolution_height": int(row['resolution_height']),
            "frame_rate": float(row['frame_rate']),
            "bit_depth": int(row['bit_depth']),
            "channel_count": int(row['channel_count']),
            "scene_type": row['scene_type'],
            "weather": row['weather'],
            "lighting_conditions": row['lighting_conditions'],
            "camera_position": row['camera_position']
        }

    def validateLidarData(self, video_id: str, video_path: str) -> Dict[str, Any]:
        """
        Validates LiDAR data completeness and synchronization.
        
        Parameters:
        -----------
        video_id : str
            Unique identifier for the video
        video_path : str
            Path to the video file
            
        Returns:
        --------
        Dict[str, Any]
            Dictionary containing LiDAR validation results
            
        Raises:
        -------
        ValueError
            If parameters are invalid or missing
        """
        if not video_id or not video_path:
            raise ValueError("Missing required parameters: video_id or video_path")

        # Load dataset
        df = pd.read_csv(self.dataset_file_path)
        
        # Find matching video record
        matched_rows = df[(df['video_id'] == video_id) & (df['video_path'] == video_path)]
        
        if len(matched_rows) > 1:
            raise ValueError(f"Multiple records found for video_id: {video_id}")
            
        if matched_rows.empty:
            raise ValueError(f"No record found for video_id: {video_id} and video_path: {video_path}")
            
        row = matched_rows.iloc[0]
        
        return {
            "video_id": row['video_id'],
            "lidar_point_cloud_path": row['lidar_point_cloud_path'],
            "time_offset": float(row['time_offset']),
            "object_distance": int(row['object_distance']),
            "camera_intrinsics_available": bool(row['camera_intrinsics_available']),
            "lidar_transform_available": bool(row['lidar_transform_available'])
        }

    def calibrateCameraSensors(self, video_id: str, camera_position: str) -> Dict[str, Any]:
        """
        Calibrates camera sensors for a given video based on the specified camera position
        and inferred environmental conditions (e.g., lighting, angle, distance).

        Parameters:
            video_id (str): Unique identifier of the video whose camera sensors need calibration.
            camera_position (str): Position of the camera (e.g., 'front', 'rear', 'side', or a custom label).

        Returns:
            Dict[str, Any]: A dictionary containing the calibration results, including:
                - 'video_id' (str): The ID of the video being calibrated.
                - 'camera_position' (str): The input camera position.
                - 'calibration_success' (bool): Indicates whether the calibration completed successfully.
                - 'calibrated_parameters' (dict): Dictionary of adjusted sensor parameters (e.g., focal length, offset).
                - 'message' (str): Informational message or error description.
        """
        pass

    def synchronizeLidarTimestamp(self, video_id: str, time_offset: float) -> Dict[str, Any]:
        """
        Synchronizes LiDAR data timestamps with corresponding video frames by applying a time offset.

        Parameters:
            video_id (str): Unique identifier of the video for which synchronization is to be performed.
            time_offset (float): Time offset in seconds to align LiDAR data with video frames.
                Positive values delay LiDAR data; negative values advance it.

        Returns:
            Dict[str, Any]: A dictionary containing the synchronization result, including:
                - 'video_id' (str): The ID of the video.
                - 'time_offset_applied' (float): The actual time offset applied.
                - 'synchronization_success' (bool): Whether synchronization was successful.
                - 'aligned_frame_count' (int): Number of video frames successfully aligned with LiDAR data.
                - 'message' (str): Informational message or error details.
        """
        pass

    def generateDepthMap(self, video_id: str, lidar_point_cloud_path: str) -> Dict[str, Any]:
        """
        Generates depth maps for a given video using associated LiDAR point cloud data.

        Parameters:
            video_id (str): Unique identifier of the video for which depth maps are to be generated.
            lidar_point_cloud_path (str): File path to the LiDAR point cloud data (e.g., .pcd, .bin, .las format).

        Returns:
            Dict[str, Any]: A dictionary containing results of the depth map generation, including:
                - 'video_id' (str): The ID of the processed video.
                - 'depth_map_paths' (List[str]): List of file paths to the generated depth maps.
                - 'frame_count' (int): Number of video frames for which depth maps were generated.
                - 'processing_time' (float): Total time taken for depth map generation in seconds.
                - 'status' (str): Status of the operation (e.g., 'success', 'error').
                - 'message' (str): Informational or error message.

        Raises:
            FileNotFoundError: If the LiDAR point cloud file does not exist or cannot be accessed.
            ValueError: If the video ID or point cloud format is invalid.
            DepthMapGenerationError: If depth map generation fails due to alignment or data issues.
        """
        pass

    def validateWeatherConditions(self, video_id: str, weather: str) -> Dict[str, Any]:
        """
        Validates whether the specified weather conditions are suitable for optimal video processing.

        Parameters:
            video_id (str): Unique identifier of the video whose associated weather condition is to be validated.
            weather (str): Reported weather condition (e.g., 'clear', 'rainy', 'foggy', 'snowy', 'overcast').

        Returns:
            Dict[str, Any]: A dictionary containing the validation results, including:
                - 'video_id' (str): The ID of the video.
                - 'weather' (str): The input weather condition.
                - 'is_supported' (bool): Whether the weather condition is supported for processing.
                - 'recommended_actions' (List[str]): Suggested adjustments or pre-processing steps, if any.
                - 'message' (str): Informational or error message.

        Raises:
            ValueError: If the input weather condition is unrecognized or unsupported.
        """
        pass

    def optimizeFrameRate(self, video_id: str, frame_rate: float) -> Dict[str, Any]:
        """
        Optimizes the frame rate of a given video to meet processing performance and accuracy requirements.

        Parameters:
            video_id (str): Unique identifier of the video to be optimized.
            frame_rate (float): Desired frame rate in frames per second (fps). Can be used to increase or reduce temporal resolution.

        Returns:
            Dict[str, Any]: A dictionary with the results of the frame rate optimization, including:
                - 'video_id' (str): The ID of the processed video.
                - 'input_frame_rate' (float): The original or requested input frame rate.
                - 'optimized_frame_rate' (float): The actual frame rate applied after optimization.
                - 'frames_retained' (int): Number of frames retained or generated.
                - 'status' (str): Status of the operation (e.g., 'success', 'warning', 'error').
                - 'message' (str): Informational or error message.

        Raises:
            ValueError: If the input frame rate is invalid (e.g., negative, zero, or unreasonably high).
            FrameRateOptimizationError: If frame rate adjustment fails due to data constraints or processing limitations.
        """
        pass

    def enhanceLowLightFootage(self, video_id: str, lighting_conditions: str) -> Dict[str, Any]:
        """
        Enhances the quality of video footage captured under low-light conditions using noise reduction,
        contrast adjustment, and brightness amplification techniques.

        Parameters:
            video_id (str): Unique identifier of the video to enhance.
            lighting_conditions (str): Description or category of the lighting condition 
                (e.g., 'low_light', 'night', 'dusk', 'dim').

        Returns:
            Dict[str, Any]: A dictionary with the results of the enhancement process, including:
                - 'video_id' (str): The ID of the enhanced video.
                - 'lighting_conditions' (str): The input lighting condition description.
                - 'enhancement_applied' (bool): Whether enhancement was applied.
                - 'enhancement_techniques' (List[str]): List of techniques used (e.g., 'denoising', 'gamma_correction').
                - 'output_video_path' (str): Path to the enhanced video file.
                - 'processing_time' (float): Time taken to complete the enhancement, in seconds.
                - 'message' (str): Informational or error message.

        Raises:
            ValueError: If the lighting condition input is invalid or not supported.
            EnhancementError: If enhancement fails due to video quality or data corruption.
        """
        pass

    def performObjectDetection(self, video_id: str, video_path: str) -> Dict[str, Any]:
        """
        Executes object detection on validated video data.
        
        Parameters:
        -----------
        video_id : str
            Unique identifier for the video
        video_path : str
            Path to the video file
            
        Returns:
        --------
        Dict[str, Any]
            Dictionary containing object detection results
            
        Raises:
        -------
        ValueError
            If parameters are invalid or missing
        """
        if not video_id or not video_path:
            raise ValueError("Missing required parameters: video_id or video_path")

        # Load dataset
        df = pd.read_csv(self.dataset_file_path)
        
        # Find matching video record
        matched_rows = df[(df['video_id'] == video_id) & (df['video_path'] == video_path)]
        
        if len(matched_rows) > 1:
            raise ValueError(f"Multiple records found for video_id: {video_id}")
            
        if matched_rows.empty:
            raise ValueError(f"No record found for video_id: {video_id} and video_path: {video_path}")
            
        row = matched_rows.iloc[0]
        
        return {
            "video_id": row['video_id'],
            "ground_truth_object": row['ground_truth_object'],
            "confidence_threshold_object_detection": float(row['confidence_threshold_object_detection']),
            "tracking_enabled": bool(row['tracking_enabled']),
            "predicted_object": row['predicted_object'],
            "object_detection_output_path": row['object_detection_output_path'],
            "output_format_object_detection": row['output_format_object_detection']
        }

    def adjustBitDepth(self, video_id: str, bit_depth: int) -> Dict[str, Any]:
        """
        Adjusts the bit depth of a video to optimize for processing performance, storage requirements,
        and visual quality.

        Parameters:
            video_id (str): Unique identifier of the video whose bit depth is to be adjusted.
            bit_depth (int): Desired bit depth (e.g., 8, 10, 12, 16). Determines the color depth and range of the video.

        Returns:
            Dict[str, Any]: A dictionary containing the results of the bit depth adjustment, including:
                - 'video_id' (str): The ID of the processed video.
                - 'input_bit_depth' (int): The original bit depth of the video.
                - 'adjusted_bit_depth' (int): The actual bit depth applied after adjustment.
                - 'status' (str): Status of the operation (e.g., 'success', 'warning', 'error').
                - 'message' (str): Informational or error message.
                - 'output_video_path' (str): Path to the output video with adjusted bit depth.

        Raises:
            ValueError: If the provided bit depth is unsupported or incompatible with the video format.
            BitDepthAdjustmentError: If the bit depth adjustment fails due to technical limitations or errors.
        """
        pass

    def validateChannelCount(self, video_id: str, channel_count: int) -> Dict[str, Any]:
        """
        Validates the video channel count configuration to ensure it aligns with the expected format
        and processing requirements (e.g., mono, stereo, multi-channel).

        Parameters:
            video_id (str): Unique identifier of the video whose channel count is to be validated.
            channel_count (int): The number of audio channels in the video (e.g., 1 for mono, 2 for stereo, etc.).

        Returns:
            Dict[str, Any]: A dictionary containing the validation results, including:
                - 'video_id' (str): The ID of the video being validated.
                - 'channel_count' (int): The provided channel count.
                - 'is_valid' (bool): Whether the channel count is valid for the video format.
                - 'supported_channel_counts' (List[int]): List of supported channel counts (e.g., [1, 2, 6]).
                - 'message' (str): Informational message or error details.

        Raises:
            ValueError: If the provided channel count is invalid or incompatible with the video format.
        """
        pass

    def executeSegmentation(self, video_id: str, predicted_object: str, object_detection_output_path: str, output_format_object_detection: str) -> Dict[str, Any]:
        """
        Performs segmentation on detected objects.
        
        Parameters:
        -----------
        video_id : str
            Unique identifier for the video
        predicted_object : str
            Object detected in the video
        object_detection_output_path : str
            Path to object detection output
        output_format_object_detection : str
            Format of object detection output
            
        Returns:
        --------
        Dict[str, Any]
            Dictionary containing segmentation results
            
        Raises:
        -------
        ValueError
            If parameters are invalid or missing
        """
        if not all([video_id, predicted_object, object_detection_output_path, output_format_object_detection]):
            raise ValueError("Missing one or more required parameters")

        # Load dataset
        df = pd.read_csv(self.dataset_file_path)
        
        # Find matching video record
        matched_rows = df[
            (df['video_id'] == video_id) & 
            (df['predicted_object'] == predicted_object) &
            (df['object_detection_output_path'] == object_detection_output_path) &
            (df['output_format_object_detection'] == output_format_object_detection)
        ]
        
        if len(matched_rows) > 1:
            raise ValueError(f"Multiple records found for video_id: {video_id}")
            
        if matched_rows.empty:
            raise ValueError(f"No matching record found for the provided parameters")
            
        row = matched_rows.iloc[0]
        
        return {
            "video_id": row['video_id'],
            "segmentation_type": row['segmentation_type'],
            "temporal_smoothing": bool(row['temporal_smoothing']),
            "predicted_iou": float(row['predicted_iou']),
            "segmentation_output_path": row['segmentation_output_path'],
            "output_format_segmentation": row['output_format_segmentation']
        }
    def validateTemporalConsistency(self, video_id: str, temporal_consistency_score: float) -> Dict[str, Any]:
        """
        Validates the temporal consistency of a processed video by comparing the provided
        temporal consistency score against an expected threshold.

        Parameters:
            video_id (str): Unique identifier of the video whose temporal consistency is being validated.
            temporal_consistency_score (float): A score representing the temporal consistency of the video,
                typically based on motion tracking, frame-to-frame consistency, or other temporal analysis metrics.
                The score should range from 0.0 (inconsistent) to 1.0 (perfect consistency).

        Returns:
            Dict[str, Any]: A dictionary containing the results of the validation, including:
                - 'video_id' (str): The ID of the video being validated.
                - 'temporal_consistency_score' (float): The input temporal consistency score.
                - 'is_valid' (bool): Whether the temporal consistency is acceptable (based on a predefined threshold).
                - 'validation_threshold' (float): The threshold value used for validation (e.g., 0.85).
                - 'status' (str): Status of the validation (e.g., 'valid', 'invalid', 'warning').
                - 'message' (str): Informational or error message regarding the validation.

        Raises:
            ValueError: If the temporal consistency score is out of range or invalid.
        """
        pass

    def checkSpatialAccuracy(self, video_id: str, spatial_accuracy_score: float) -> Dict[str, Any]:
        """
        Checks the spatial accuracy of processed results by comparing the provided spatial accuracy score
        with a predefined threshold to assess the quality of spatial alignment or object positioning.

        Parameters:
            video_id (str): Unique identifier of the video whose spatial accuracy is being checked.
            spatial_accuracy_score (float): A score representing the spatial accuracy of the processed video,
                typically based on the precision of object localization, positioning, or alignment within the video.
                The score should range from 0.0 (poor accuracy) to 1.0 (perfect accuracy).

        Returns:
            Dict[str, Any]: A dictionary containing the results of the spatial accuracy check, including:
                - 'video_id' (str): The ID of the video being checked.
                - 'spatial_accuracy_score' (float): The input spatial accuracy score.
                - 'is_accurate' (bool): Whether the spatial accuracy is within an acceptable range.
                - 'validation_threshold' (float): The threshold value used for validation (e.g., 0.90).
                - 'status' (str): Status of the check (e.g., 'accurate', 'inaccurate', 'warning').
                - 'message' (str): Informational or error message regarding the spatial accuracy.

        Raises:
            ValueError: If the spatial accuracy score is out of range or invalid.
        """
        pass

    def validateAnnotatorScores(self, video_id: str, inter_annotator_score: float) -> Dict[str, Any]:
        """
        Validates the inter-annotator agreement score for a given video, ensuring consistency
        between multiple annotators on labels or annotations.

        Parameters:
            video_id (str): Unique identifier of the video whose annotator scores are being validated.
            inter_annotator_score (float): The inter-annotator agreement score, typically based on metrics like 
                Cohen's Kappa, Fleiss' Kappa, or other statistical measures of agreement. The score should range
                from 0.0 (no agreement) to 1.0 (perfect agreement).

        Returns:
            Dict[str, Any]: A dictionary containing the validation results, including:
                - 'video_id' (str): The ID of the video being validated.
                - 'inter_annotator_score' (float): The input inter-annotator score.
                - 'is_valid' (bool): Whether the score meets the acceptable threshold for valid annotation agreement.
                - 'validation_threshold' (float): The threshold for acceptable inter-annotator agreement (e.g., 0.75).
                - 'status' (str): Status of the validation (e.g., 'valid', 'invalid', 'warning').
                - 'message' (str): Informational or error message regarding the validation.

        Raises:
            ValueError: If the inter-annotator score is out of range or invalid.
            AnnotationError: If validation fails due to low agreement between annotators.
        """
        pass

    def runAutomatedQC(self, video_id: str, video_path: str, predicted_object: str, predicted_iou: float, segmentation_output_path: str, object_detection_output_path: str) -> Dict[str, Any]:
        """
        Performs automated quality control checks.
        
        Parameters:
        -----------
        video_id : str
            Unique identifier for the video
        video_path : str
            Path to the video file
        predicted_object : str
            Object detected in the video
        predicted_iou : float
            Intersection over Union score
        segmentation_output_path : str
            Path to segmentation output
        object_detection_output_path : str
            Path to object detection output
            
        Returns:
        --------
        Dict[str, Any]
            Dictionary containing QC results
            
        Raises:
        -------
        ValueError
            If parameters are invalid or missing
        """
        if not all([video_id, video_path, predicted_object, predicted_iou, segmentation_output_path, object_detection_output_path]):
            raise ValueError("Missing one or more required parameters")

        # Load dataset
        df = pd.read_csv(self.dataset_file_path)
        
        # Find matching video record
        matched_rows = df[
            (df['video_id'] == video_id) &
            (df['video_path'] == video_path) &
            (df['predicted_object'] == predicted_object) &
            (df['predicted_iou'] == predicted_iou) &
            (df['segmentation_output_path'] == segmentation_output_path) &
            (df['object_detection_output_path'] == object_detection_output_path)
        ]
        
        if len(matched_rows) > 1:
            raise ValueError(f"Multiple records found for video_id: {video_id}")
            
        if matched_rows.empty:
            raise ValueError(f"No matching record found for the provided parameters")
            
        row = matched_rows.iloc[0]
        
        return {
            "video_id": row['video_id'],
            "temporal_consistency_score": float(row['temporal_consistency_score']),
            "spatial_accuracy_score": float(row['spatial_accuracy_score'])
        }

    def performHumanValidation(self, video_id: str, predicted_object: str, predicted_iou: float, segmentation_output_path: str,object_detection_output_path: str) -> Dict[str, Any]:
        """
        Manages human-in-the-loop validation process.
        
        Parameters:
        -----------
        video_id : str
            Unique identifier for the video
        predicted_object : str
            Object detected in the video
        predicted_iou : float
            Intersection over Union score
        segmentation_output_path : str
            Path to segmentation output
        object_detection_output_path : str
            Path to object detection output
            
        Returns:
        --------
        Dict[str, Any]
            Dictionary containing human validation results
            
        Raises:
        -------
        ValueError
            If parameters are invalid or missing
        """
        if not all([video_id, predicted_object, predicted_iou, segmentation_output_path, object_detection_output_path]):
            raise ValueError("Missing one or more required parameters")

        # Load dataset
        df = pd.read_csv(self.dataset_file_path)
        
        # Find matching video record
        matched_rows = df[
            (df['video_id'] == video_id) &
            (df['predicted_object'] == predicted_object) &
            (df['predicted_iou'] == predicted_iou) &
            (df['segmentation_output_path'] == segmentation_output_path) &
            (df['object_detection_output_path'] == object_detection_output_path)
        ]
        
        if len(matched_rows) > 1:
            raise ValueError(f"Multiple records found for video_id: {video_id}")
            
        if matched_rows.empty:
            raise ValueError(f"No matching record found for the provided parameters")
            
        row = matched_rows.iloc[0]
        
        return {
            "video_id": row['video_id'],
            "inter_annotator_score": float(row['inter_annotator_score']),
            "min_reviewers": int(row['min_reviewers'])
        }
        

    def trackObjectMotion(self, video_id: str, predicted_object: str) -> Dict[str, Any]:
        """
        Tracks the movement patterns of a predicted object across video frames to analyze its trajectory and behavior.

        Parameters:
            video_id (str): Unique identifier of the video in which the object motion is being tracked.
            predicted_object (str): Label or identifier of the object whose motion is being tracked (e.g., 'car', 'person').

        Returns:
            Dict[str, Any]: A dictionary containing the results of the object motion tracking, including:
                - 'video_id' (str): The ID of the video being processed.
                - 'predicted_object' (str): The object whose motion is being tracked.
                - 'motion_path' (List[Tuple[int, int]]): List of (x, y) coordinates representing the object's path over time.
                - 'total_distance' (float): Total distance traveled by the object during the video.
                - 'speed_estimate' (float): Estimated average speed of the object (in units per frame).
                - 'tracking_status' (str): Status of the tracking (e.g., 'success', 'error').
                - 'message' (str): Informational or error message related to tracking.

        Raises:
            ValueError: If the predicted object is not found or is invalid.
            TrackingError: If tracking fails due to occlusions, noise, or other motion tracking issues.
        """
        pass

    def validateCameraIntrinsics(self, video_id: str, camera_intrinsics_available: bool) -> Dict[str, Any]:
        """
        Validates whether the necessary camera intrinsic parameters are available and correctly configured for the video.

        Parameters:
            video_id (str): Unique identifier of the video whose camera intrinsic parameters are being validated.
            camera_intrinsics_available (bool): Flag indicating whether camera intrinsic parameters (e.g., focal length, 
                principal point, distortion coefficients) are available for the video.

        Returns:
            Dict[str, Any]: A dictionary containing the validation results, including:
                - 'video_id' (str): The ID of the video being validated.
                - 'camera_intrinsics_available' (bool): Whether the camera intrinsics are available for validation.
                - 'is_valid' (bool): Whether the camera intrinsics are valid and meet required criteria for processing.
                - 'status' (str): Validation status (e.g., 'valid', 'invalid', 'missing').
                - 'message' (str): Informational or error message regarding the camera intrinsics validation.

        Raises:
            ValueError: If the camera intrinsics are not available or improperly configured.
            CameraIntrinsicsValidationError: If validation fails due to incorrect or missing parameters.
        """
        pass

    def processNightTimeFootage(self, video_id: str, lighting_conditions: str) -> Dict[str, Any]:
        """
        Processes and enhances night-time video footage, improving visibility and reducing noise 
        for better analysis under low-light conditions.

        Parameters:
            video_id (str): Unique identifier of the night-time video to be processed.
            lighting_conditions (str): Descriptive label or category of the lighting condition 
                (e.g., 'night', 'low_light', 'dim', 'dark').

        Returns:
            Dict[str, Any]: A dictionary containing the results of the processing, including:
                - 'video_id' (str): The ID of the processed video.
                - 'lighting_conditions' (str): The input lighting condition description.
                - 'enhanced_video_path' (str): Path to the processed video with enhanced lighting and noise reduction.
                - 'processing_time' (float): Time taken to process the footage, in seconds.
                - 'status' (str): Processing status (e.g., 'success', 'error').
                - 'message' (str): Informational or error message regarding the processing.

        Raises:
            ValueError: If the lighting conditions are invalid or incompatible with processing algorithms.
            ProcessingError: If the enhancement or processing fails due to video quality or technical limitations.
        """
        pass

    def analyzeCameraStability(self, video_id: str, camera_position: str) -> Dict[str, Any]:
        """
        Analyzes the stability of the camera during video recording to assess any shake, drift, or instability in the footage.

        Parameters:
            video_id (str): Unique identifier of the video whose camera stability is being analyzed.
            camera_position (str): The position or orientation of the camera during recording (e.g., 'static', 'handheld', 'mounted').

        Returns:
            Dict[str, Any]: A dictionary containing the results of the camera stability analysis, including:
                - 'video_id' (str): The ID of the analyzed video.
                - 'camera_position' (str): The input camera position or orientation.
                - 'stability_score' (float): A score representing the camera stability, where higher values indicate more stability.
                - 'shakiness_detected' (bool): Whether significant camera shake or instability was detected.
                - 'recommended_actions' (List[str]): Suggested actions (e.g., 'use a tripod', 'apply stabilization') if instability is detected.
                - 'status' (str): Status of the analysis (e.g., 'stable', 'unstable', 'warning').
                - 'message' (str): Informational or error message regarding the stability analysis.

        Raises:
            ValueError: If the camera position is invalid or not recognized.
            StabilityAnalysisError: If the camera stability analysis fails due to technical or data issues.
        """
        pass

    def validateSceneContext(self, video_id: str, scene_type: str) -> Dict[str, Any]:
        """
        Validates the scene context of the video to ensure the scene type aligns with the required processing parameters.

        Parameters:
            video_id (str): Unique identifier of the video whose scene context is being validated.
            scene_type (str): The type of the scene in the video (e.g., 'urban', 'rural', 'indoor', 'outdoor', 'night').

        Returns:
            Dict[str, Any]: A dictionary containing the results of the scene context validation, including:
                - 'video_id' (str): The ID of the video being validated.
                - 'scene_type' (str): The input scene type description.
                - 'is_valid' (bool): Whether the scene type is supported for processing.
                - 'supported_scene_types' (List[str]): List of supported scene types (e.g., ['urban', 'outdoor', 'night']).
                - 'status' (str): Status of the validation (e.g., 'valid', 'invalid', 'warning').
                - 'message' (str): Informational or error message regarding the scene context validation.

        Raises:
            ValueError: If the provided scene type is not recognized or not supported.
        """
        pass

    def process_tool_call(self, tool_name: str, tool_input: Dict[str, Any]) -> Dict[str, Any]:
        """Routes tool calls to appropriate methods."""
        tool_mapping = {
            "validateVideoFormat": self.validateVideoFormat,
            "validateLidarData": self.validateLidarData,
            "performObjectDetection": self.performObjectDetection,
            "executeSegmentation": self.executeSegmentation,
            "runAutomatedQC": self.runAutomatedQC,
            "performHumanValidation": self.performHumanValidation,
            "calibrateCameraSensors": self.calibrateCameraSensors,
            "synchronizeLidarTimestamp": self.synchronizeLidarTimestamp,
            "generateDepthMap": self.generateDepthMap,
            "validateWeatherConditions": self.validateWeatherConditions,
            "optimizeFrameRate": self.optimizeFrameRate,
            "enhanceLowLightFootage": self.enhanceLowLightFootage,
            "trackObjectMotion": self.trackObjectMotion,
            "validateCameraIntrinsics": self.validateCameraIntrinsics,
            "processNightTimeFootage": self.processNightTimeFootage,
            "analyzeCameraStability": self.analyzeCameraStability,
            "validateSceneContext": self.validateSceneContext,
            "adjustBitDepth": self.adjustBitDepth,
            "validateChannelCount": self.validateChannelCount,
            "processHighResolution": self.processHighResolution,
            "validateOutputFormat": self.validateOutputFormat,
            "checkProcessingStatus": self.checkProcessingStatus,
            "validateTemporalConsistency": self.validateTemporalConsistency,
            "checkSpatialAccuracy": self.checkSpatialAccuracy,
            "validateAnnotatorScores": self.validateAnnotatorScores,
            "optimizeTrackingSettings": self.optimizeTrackingSettings
        }
        
        if tool_name not in tool_mapping:
            raise ValueError(f"Invalid tool_name: {tool_name}")
            
        return tool_mapping[tool_name](**tool_input)

if __name__ == "__main__":
    # Initialize the manager
    manager = VideoProcessingManager()
    
    # Test validateVideoFormat
    print("Testing validateVideoFormat...")
    try:
        result = manager.validateVideoFormat(video_id="vid_00010")
        print("Success:", result)
    except ValueError as e:
        print("Error:", str(e))
    
    try:
        result = manager.validateVideoFormat(video_id="invalid_id")
        print("Success:", result)
    except ValueError as e:
        print("Error:", str(e))
    
    # Test validateLidarData
    print("\nTesting validateLidarData...")
    try:
        result = manager.validateLidarData(
            video_id="vid_00010",
            video_path="/data/videos/vid_00010.mp4"
        )
        print("Success:", result)
    except ValueError as e:
        print("Error:", str(e))
    
    # Test performObjectDetection
    print("\nTesting performObjectDetection...")
    try:
        result = manager.performObjectDetection(
            video_id="vid_00010",
            video_path="/data/videos/vid_00010.mp4"
        )
        print("Success:", result)
    except ValueError as e:
        print("Error:", str(e))
    
    # Test executeSegmentation
    print("\nTesting executeSegmentation...")
    try:
        result = manager.executeSegmentation(
            video_id="vid_00010",
            predicted_object="road lanes",
            object_detection_output_path="/data/videos/vid_00010.json",
            output_format_object_detection="json"
        )
        print("Success:", result)
    except ValueError as e:
        print("Error:", str(e))
    
    # Test runAutomatedQC
    print("\nTesting runAutomatedQC...")
    try:
        result = manager.runAutomatedQC(
            video_id="vid_00010",
            video_path="/data/videos/vid_00010.mp4",
            predicted_object="road lanes",
            predicted_iou=0.9,
            segmentation_output_path="/data/videos/vid_00010.binary",
            object_detection_output_path="/data/videos/vid_00010.json"
        )
        print("Success:", result)
    except ValueError as e:
        print("Error:", str(e))

    # Test performHumanValidation
    print("\nTesting performHumanValidation...")
    try:
        result = manager.performHumanValidation(
            video_id="vid_00010",
            predicted_object="road lanes",
            predicted_iou=0.9,
            segmentation_output_path="/data/videos/vid_00010.binary",
            object_detection_output_path="/data/videos/vid_00010.json"
        )
        print("Success:", result)
    except ValueError as e:
        print("Error:", str(e))

    # Test invalid cases for each API
    print("\nTesting invalid cases...")
    
    # Invalid validateVideoFormat
    print("\nTesting invalid validateVideoFormat...")
    try:
        result = manager.validateVideoFormat(video_id="")
        print("Success:", result)
    except ValueError as e:
        print("Error:", str(e))

    # Invalid validateLidarData
    print("\nTesting invalid validateLidarData...")
    try:
        result = manager.validateLidarData(
            video_id="",
            video_path=""
        )
        print("Success:", result)
    except ValueError as e:
        print("Error:", str(e))

    # Invalid performObjectDetection
    print("\nTesting invalid performObjectDetection...")
    try:
        result = manager.performObjectDetection(
            video_id="invalid_id",
            video_path="/invalid/path.mp4"
        )
        print("Success:", result)
    except ValueError as e:
        print("Error:", str(e))

    # Invalid executeSegmentation
    print("\nTesting invalid executeSegmentation...")
    try:
        result = manager.executeSegmentation(
            video_id="invalid_id",
            predicted_object="invalid_object",
            object_detection_output_path="/invalid/path.json",
            output_format_object_detection="invalid_format"
        )
        print("Success:", result)
    except ValueError as e:
        print("Error:", str(e))

    # Invalid runAutomatedQC
    print("\nTesting invalid runAutomatedQC...")
    try:
        result = manager.runAutomatedQC(
            video_id="invalid_id",
            video_path="/invalid/path.mp4",
            predicted_object="invalid_object",
            predicted_iou=-1.0,
            segmentation_output_path="/invalid/path.binary",
            object_detection_output_path="/invalid/path.json"
        )
        print("Success:", result)
    except ValueError as e:
        print("Error:", str(e))

    # Invalid performHumanValidation
    print("\nTesting invalid performHumanValidation...")
    try:
        result = manager.performHumanValidation(
            video_id="invalid_id",
            predicted_object="invalid_object",
            predicted_iou=-1.0,
            segmentation_output_path="/invalid/path.binary",
            object_detection_output_path="/invalid/path.json"
        )
        print("Success:", result)
    except ValueError as e:
        print("Error:", str(e))

    # Test process_tool_call
    print("\nTesting process_tool_call...")
    
    # Valid process_tool_call
    try:
        result = manager.process_tool_call(
            tool_name="validateVideoFormat",
            tool_input={"video_id": "vid_00010"}
        )
        print("Success:", result)
    except ValueError as e:
        print("Error:", str(e))

    # Invalid process_tool_call
    try:
        result = manager.process_tool_call(
            tool_name="invalidTool",
            tool_input={"video_id": "vid_00010"}
        )
        print("Success:", result)
    except ValueError as e:
        print("Error:", str(e))

    # Test with different video samples
    print("\nTesting with different video samples...")
    
    # Test with vid_00014
    print("\nTesting with vid_00014...")
    try:
        result = manager.validateVideoFormat(video_id="vid_00014")
        print("validateVideoFormat Success:", result)
        
        result = manager.validateLidarData(
            video_id="vid_00014",
            video_path="/data/videos/vid_00014.mp4"
        )
        print("validateLidarData Success:", result)
        
        result = manager.performObjectDetection(
            video_id="vid_00014",
            video_path="/data/videos/vid_00014.mp4"
        )
        print("performObjectDetection Success:", result)
    except ValueError as e:
        print("Error:", str(e))

    # Test with vid_00020
    print("\nTesting with vid_00020...")
    try:
        result = manager.validateVideoFormat(video_id="vid_00020")
        print("validateVideoFormat Success:", result)
        
        result = manager.executeSegmentation(
            video_id="vid_00020",
            predicted_object="bicyclists",
            object_detection_output_path="/data/videos/vid_00020.json",
            output_format_object_detection="json"
        )
        print("executeSegmentation Success:", result)
        
        result = manager.runAutomatedQC(
            video_id="vid_00020",
            video_path="/data/videos/vid_00020.mp4",
            predicted_object="bicyclists",
            predicted_iou=0.83,
            segmentation_output_path="/data/videos/vid_00020.indices",
            object_detection_output_path="/data/videos/vid_00020.json"
        )
        print("runAutomatedQC Success:", result)
    except ValueError as e:
        print("Error:", str(e))

    print("\nAll tests completed.")
